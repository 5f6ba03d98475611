// The `latency` channel kind: each vehicle's device serialises its own frames at DataRate (its own
// transmit queue), and every frame reaches each other device Delay + U[0, jitter] after its
// transmission ended. Unlike CSMA, the delay never occupies a shared medium, so it does not limit
// capacity. Loss is a per-receiver packet error model. Shared by the real-time and the lock-step
// channel programs.
#pragma once

#include "ns3/core-module.h"
#include "ns3/network-module.h"

#include <functional>

namespace cavsim
{

// SimpleChannel with a per-frame, per-receiver uniform extra delay. Frames may overtake one
// another when jitter exceeds their spacing, as with netem's jitter.
class JitteredSimpleChannel : public ns3::SimpleChannel
{
  public:
    JitteredSimpleChannel(ns3::Time delay, ns3::Time jitter)
        : m_delay(delay),
          m_jitter(jitter),
          m_draw(ns3::CreateObject<ns3::UniformRandomVariable>())
    {
    }

    // Fixed streams keep a seed's output identical however many other random variables exist.
    int64_t AssignStreams(int64_t stream)
    {
        m_draw->SetStream(stream);
        return 1;
    }

    // SimpleNetDevice has no transmit trace, so a program that watches frames (the real-time
    // channel's frame log and loss tracking, its spin before a delivery) hooks the channel itself.
    using SendHook = std::function<void(ns3::Ptr<const ns3::Packet>, uint16_t protocol, ns3::Mac48Address from, ns3::Mac48Address to, uint32_t senderNode)>;
    using DeliveryHook = std::function<void(ns3::Time delay)>;

    void SetHooks(SendHook onSend, DeliveryHook onDeliveryScheduled)
    {
        m_onSend = std::move(onSend);
        m_onDeliveryScheduled = std::move(onDeliveryScheduled);
    }

    // Frames sent from now on take the new delay (cavsim's stack-share calibration, at run start).
    void SetDelay(ns3::Time delay, ns3::Time jitter)
    {
        m_delay = delay;
        m_jitter = jitter;
    }

    void Add(ns3::Ptr<ns3::SimpleNetDevice> device) override
    {
        m_devices.push_back(device);
        ns3::SimpleChannel::Add(device);
    }

    void Send(ns3::Ptr<ns3::Packet> p,
              uint16_t protocol,
              ns3::Mac48Address to,
              ns3::Mac48Address from,
              ns3::Ptr<ns3::SimpleNetDevice> sender) override
    {
        if (m_onSend)
        {
            m_onSend(p, protocol, from, to, sender->GetNode()->GetId());
        }
        for (const auto& device : m_devices)
        {
            if (device == sender)
            {
                continue;
            }
            ns3::Time extra = m_jitter.IsStrictlyPositive() ? ns3::NanoSeconds(static_cast<int64_t>(m_draw->GetValue(0, 1) * m_jitter.GetNanoSeconds())) : ns3::Time(0);
            if (m_onDeliveryScheduled)
            {
                m_onDeliveryScheduled(m_delay + extra);
            }
            ns3::Simulator::ScheduleWithContext(device->GetNode()->GetId(),
                                                m_delay + extra,
                                                &ns3::SimpleNetDevice::Receive,
                                                device,
                                                p->Copy(),
                                                protocol,
                                                to,
                                                from);
        }
    }

  private:
    ns3::Time m_delay;
    ns3::Time m_jitter;
    ns3::Ptr<ns3::UniformRandomVariable> m_draw;
    std::vector<ns3::Ptr<ns3::SimpleNetDevice>> m_devices;
    SendHook m_onSend;
    DeliveryHook m_onDeliveryScheduled;
};

struct LatencySettings
{
    ns3::Time delay;
    ns3::Time jitter;
    ns3::DataRate dataRate;
    double loss = 0;
};

// One SimpleNetDevice per node on one jittered channel; returns the devices in node order.
// Streams `stream`, `stream + 1`, ... are used for the jitter and each receiver's loss.
inline ns3::NetDeviceContainer
InstallLatencyChannel(const ns3::NodeContainer& nodes, const LatencySettings& s, int64_t stream)
{
    auto channel = ns3::CreateObject<JitteredSimpleChannel>(s.delay, s.jitter);
    channel->AssignStreams(stream++);
    ns3::NetDeviceContainer devices;
    for (uint32_t i = 0; i < nodes.GetN(); ++i)
    {
        auto device = ns3::CreateObject<ns3::SimpleNetDevice>();
        device->SetAddress(ns3::Mac48Address::Allocate());
        device->SetAttribute("DataRate", ns3::DataRateValue(s.dataRate));
        device->SetAttribute("TxQueue", ns3::StringValue("ns3::DropTailQueue<Packet>[MaxSize=1000p]"));
        device->SetChannel(channel);
        nodes.Get(i)->AddDevice(device);
        if (s.loss > 0)
        {
            auto errors = ns3::CreateObject<ns3::RateErrorModel>();
            errors->SetUnit(ns3::RateErrorModel::ERROR_UNIT_PACKET);
            errors->SetRate(s.loss);
            errors->AssignStreams(stream++);
            device->SetReceiveErrorModel(errors);
        }
        devices.Add(device);
    }
    return devices;
}

} // namespace cavsim
