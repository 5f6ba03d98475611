// The `csma` channel kind: one CSMA bus (which holds the medium for the whole delay after each
// frame), with a per-receiver packet error model when `loss` > 0. Shared by both channel programs.
#pragma once

#include "ns3/core-module.h"
#include "ns3/csma-module.h"
#include "ns3/network-module.h"

namespace cavsim
{

// One CSMA device per node on one bus; streams from `stream` on draw each receiver's losses.
inline ns3::NetDeviceContainer
InstallCsmaChannel(const ns3::NodeContainer& nodes, ns3::Time delay, ns3::DataRate dataRate, double loss, int64_t stream)
{
    ns3::CsmaHelper csma;
    csma.SetChannelAttribute("DataRate", ns3::DataRateValue(dataRate));
    csma.SetChannelAttribute("Delay", ns3::TimeValue(delay));
    ns3::NetDeviceContainer devices = csma.Install(nodes);
    for (uint32_t i = 0; i < devices.GetN() && loss > 0; ++i)
    {
        auto errors = ns3::CreateObject<ns3::RateErrorModel>();
        errors->SetUnit(ns3::RateErrorModel::ERROR_UNIT_PACKET);
        errors->SetRate(loss);
        errors->AssignStreams(stream + i);
        ns3::DynamicCast<ns3::CsmaNetDevice>(devices.Get(i))->SetReceiveErrorModel(errors);
    }
    csma.AssignStreams(devices, stream + devices.GetN());
    return devices;
}

} // namespace cavsim
